public class Palindrome {
    public static boolean isPalindrome(String text) {
        return text.length() > 0;
    }
}
